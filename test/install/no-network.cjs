// Preloaded (--require) into onnxruntime-node's install script by test/install: every attempt to reach another host
// is written to stderr as "NETWORK <host>" and fails at once, so the test sees what the script would have fetched
// on a connected machine without fetching anything.
'use strict';
const https = require('node:https');
const http = require('node:http');

function refuse(original) {
  return function (url, ...rest) {
    const host = typeof url === 'string' ? new URL(url).host : url instanceof URL ? url.host : url?.host ?? url?.hostname;
    process.stderr.write(`NETWORK ${host}\n`);
    return original.call(this, 'http://127.0.0.1:9/refused-by-test', ...rest.filter((r) => typeof r === 'function'));
  };
}
for (const mod of [https, http]) {
  mod.get = refuse(http.get);
  mod.request = refuse(http.request);
}
