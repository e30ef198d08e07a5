// Filled by the admin customers work.
export {};
