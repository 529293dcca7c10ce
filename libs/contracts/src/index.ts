export * from './outcomes';
export * from './identifiers';
export * from './event';
export * from './datapoint';
export * from './error';
export * from './query';
export * from './read-token';
