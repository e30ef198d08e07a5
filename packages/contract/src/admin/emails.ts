// Filled by the admin emails work.
export {};
