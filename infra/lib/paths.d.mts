export declare const ROOT: string;
export declare const CACHE_DIR: string;
export declare const DATA_DIR: string;
export declare const KAFKA_LIBS_DIR: string;
export declare const KAFKA_POM: string;
export declare const REDIS_CONF: string;
