/** Configuration loading: VDSim-style YAML (flat keys or catalog parts) into the plant's parameter objects. */
export { ConfigError } from './errors.js';
export { classifyConfig, type Classification, type ParamsKind } from './classify.js';
export { type LoadOptions, type LoadResult, type ConfigSource } from './document.js';
export { loadVehicleParams, parseVehicleParams } from './load-vehicle.js';
export { loadTireParams, parseTireParams } from './load-tire.js';
export { loadSolverParams, parseSolverParams } from './load-solver.js';
export { loadSensorParams, parseSensorParams } from './load-sensor.js';
export { loadActuatorParams, parseActuatorParams } from './load-actuator.js';
export { readYamlFile, parseYamlText } from './yaml-file.js';
