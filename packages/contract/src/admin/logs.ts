// Filled by the admin logs work.
export {};
