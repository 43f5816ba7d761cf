export declare const PROJECT_ROOT: string;
export declare const SHARED_DIR: string;
export declare const PYTHON: string;
export declare function findChromium(): string | null;
export declare function findRedis(): string | null;
export declare function pythonMissing(modules: string[]): string | null;
export interface Prerequisite {
  key: 'chromium' | 'redis' | 'python' | 'shared';
  apt: string[];
  used: string;
  check(): string | null;
}
export declare const PREREQUISITES: Prerequisite[];
