export * from './reasons';
export * from './decode';
export * from './dead-letter';
export * from './batch-processor';
export * from './metrics';
export * from './settings';
export * from './worker';
