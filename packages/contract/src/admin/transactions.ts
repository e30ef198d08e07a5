// Filled by the admin transactions work.
export {};
