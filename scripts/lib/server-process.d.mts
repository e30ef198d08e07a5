// Types of server-process.mjs for the TypeScript tests that import it.
export declare const SERVER_MAIN: string;
export declare const SERVER_NODE_OPTIONS: readonly string[];
export declare function supportedNodeOptions(
  options: readonly string[],
  v8Options: string,
  nodeFlags?: ReadonlySet<string>,
): string[];
export declare function serverNodeOptions(): string[];
export declare const SERVER_ENV: Readonly<Record<string, string>>;
export declare function serverEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export declare function serverArgs(extra?: readonly string[]): string[];
