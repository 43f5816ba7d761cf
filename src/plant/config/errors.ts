/** Errors raised while loading configuration files: they always name the file and, when known, the key. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly key: string | undefined,
    detail: string,
  ) {
    super(key ? `${file}: key '${key}': ${detail}` : `${file}: ${detail}`);
    this.name = 'ConfigError';
  }
}
