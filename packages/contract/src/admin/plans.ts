// Filled by the admin plans work.
export {};
