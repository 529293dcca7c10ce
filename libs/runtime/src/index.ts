export * from './logger';
export * from './metrics';
export * from './shutdown';
export * from './fatal';
