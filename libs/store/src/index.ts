export * from './keys';
export * from './commands';
