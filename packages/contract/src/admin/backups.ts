// Filled by the admin backups work.
export {};
