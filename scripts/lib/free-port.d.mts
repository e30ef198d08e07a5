// Types of free-port.mjs for the TypeScript tests that import it.
export declare function freePort(): Promise<number>;
