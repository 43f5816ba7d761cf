/**
 * src/cosim — co-simulation with VDSim's tools and control stacks (github.com/Onlyti/VDSim, Apache-2.0;
 * behaviour re-implemented from ../shared/spec/vdsim-plant.md §1, §2, §4, §5, §6.8–6.9):
 *
 *   vds1.ts, crc32.ts       the VDS1 UDP protocol: CMD and STATE v1–v5, CRC-32, decoding with drop reasons
 *   realtime.ts             the vdsim_realtime-compatible server (fleet, watchdog, legacy and comms routing)
 *   comms/                  comms YAML, the router (fan-out / fan-in), templates (one file each)
 *   scene.ts                world / catalog scene YAML and the seed form's one-vehicle world
 *   ports.ts                the JSON data port (served over HTTP by src/server/io-plugin.ts)
 *   internal-controller.ts  vdsim_realtime's `control: internal` driver
 *   geodetic.ts, nmea.ts, format.ts  helpers of the text templates
 */
export * from './vds1.js';
export { crc32 } from './crc32.js';
export { RealtimeServer, groundFor, DEFAULT_CMD_PORT, DEFAULT_STATE_IP, DEFAULT_STATE_PORT, SUBSCRIBER_TIMEOUT_S, DEFAULT_BIND_ADDRESS, DEFAULT_MAX_AUTO_SUBSCRIBERS, type RealtimeConfig, type RealtimeCounters, type RealtimeWorld } from './realtime.js';
export { SourceFilter, SourceListError, allowAllWarning, isLoopbackAddress, parseIpv4 } from './sources.js';
export { loadWorldFile, seedWorld, type WorldSpec, type FleetWorld, type VehicleSpec, type GroundSpec, type WorldLoadOptions } from './scene.js';
export { loadCommsFile, parseComms, parseSource, type CommsSpec, type ChannelSpec, type TxChannelSpec, type RxChannelSpec, type Destination, type SourceRef } from './comms/config.js';
export { CommsRouter, TX_BUFFER_BYTES } from './comms/router.js';
export { loadTemplates, listTemplates, findTemplate, registerTemplate, type CommsTemplate, type TxContext, type TemplateVehicle, type SourceKind } from './comms/templates/registry.js';
export { JsonDataPort, isUnknownVehicle, type VehiclePorts, type IoCommand, type TargetsPatch, type TargetsView, type TelemetryConfig, type UnknownVehicle } from './ports.js';
export { InternalController, type Waypoint } from './internal-controller.js';
export { CosimVehicle } from './vehicle.js';
export { enuToGeodetic, type GeodeticOrigin, type Geodetic } from './geodetic.js';
export { bindUdp, TxRing, closeSocket } from './udp.js';
