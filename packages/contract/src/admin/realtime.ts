// Filled by the admin realtime work.
export {};
