export declare const NODE_FLAGS: Readonly<Record<string, readonly string[]>>;
export declare const SERVICE_ENV: Readonly<Record<string, Readonly<Record<string, string>>>>;
/** The Node flags of service `name` (none for a service without any). */
export declare function nodeFlagsOf(name: string): string[];
/** The environment variables service `name` runs with, on top of its configuration ({} for none). */
export declare function serviceEnvOf(name: string): Record<string, string>;
