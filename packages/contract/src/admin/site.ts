// Filled by the admin site work.
export {};
