export declare const NODE_FLAGS: Readonly<Record<string, readonly string[]>>;
/** The flags of service `name` (none for a service without any). */
export declare function nodeFlagsOf(name: string): string[];
