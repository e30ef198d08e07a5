// Filled by the plan editor work.
export {};
