export declare const PROJECT_ROOT: string;
export declare const SHARED_DIR: string;
export declare const PYTHON: string;
export declare const ROS2_VENV: string;
export declare const ROS2_PYTHON: string;
export declare const ROS2_VENV_COMMAND: string;
export declare function ros2Missing(): string | null;
export declare function findChromium(): string | null;
export declare function findRedis(): string | null;
export declare function pythonMissing(modules: string[]): string | null;
export interface Prerequisite {
  key: 'chromium' | 'redis' | 'python' | 'ros2' | 'shared';
  apt: string[];
  /** a command that makes it once the apt packages are there (npm test runs it) */
  install?: string;
  used: string;
  check(): string | null;
}
export declare const PREREQUISITES: Prerequisite[];
