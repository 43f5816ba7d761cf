/**
 * src/map — road data: GPUDrive scene JSON and VILS road JSON loading, GPUDrive's road entities
 * (polyline reduction, boxes, stop signs) in struct-of-arrays form, and kdbush radius queries.
 */
export * from './types.js';
export * from './scene-json.js';
export * from './polyline.js';
export * from './road-entities.js';
export * from './spatial-index.js';
export * from './world-mean.js';
