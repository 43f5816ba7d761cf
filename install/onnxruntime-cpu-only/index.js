// VILS installs onnxruntime-node for the CPU only, with any npm. onnxruntime-node's install script
// (node_modules/onnxruntime-node/script/install.js) downloads the CUDA and TensorRT libraries (hundreds of MB, from a
// package host that is not the npm registry) on Linux x64 unless its switch ONNXRUNTIME_NODE_INSTALL (or the npm
// config onnxruntime-node-install) says "skip". A user typing `npm ci` sets neither: npm 11 keeps the script from
// running through package.json's allowScripts, but npm 10 (the one Node 20 and 22 ship) has no such field, and an
// .npmrc key makes npm 11 warn "Unknown project config". That script is global-agent's only user, and it calls
// global-agent's bootstrap() before it reads its switch: package.json's `overrides` puts this package in
// global-agent's place, and its bootstrap() turns the switch to "skip" unless the user set it (or the older
// ONNXRUNTIME_NODE_INSTALL_CUDA) to something, so `ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci` still fetches the CUDA
// build (through no proxy: global-agent's proxy support is what this leaves out).
'use strict';

const SWITCHES = [
  'ONNXRUNTIME_NODE_INSTALL',
  'npm_config_onnxruntime_node_install',
  'ONNXRUNTIME_NODE_INSTALL_CUDA',
  'npm_config_onnxruntime_node_install_cuda',
];

function bootstrap() {
  if (SWITCHES.some((name) => process.env[name])) return false;
  if (process.argv.some((a) => a.startsWith('--onnxruntime-node-install'))) return false;
  process.env.ONNXRUNTIME_NODE_INSTALL = 'skip';
  return true;
}

// global-agent's other entry point, should anything call it: no proxy agent
function createGlobalProxyAgent() {
  return { HTTP_PROXY: null, HTTPS_PROXY: null, NO_PROXY: null };
}

module.exports = { bootstrap, createGlobalProxyAgent };
