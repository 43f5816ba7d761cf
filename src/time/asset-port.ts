/**
 * The external-asset port of a session, as the settings ask for it (asset_port, asset_host, asset_timeout_s),
 * and the wait for the assets a run expects (expect_assets) before its time starts: a run that began without
 * them would be over, or far ahead, before they joined.
 */
import { AssetServer } from './asset-server.js';
import type { AssetHub } from './session.js';
import type { TimeSettings } from './settings.js';

/** Opens the UDP port when the settings give one (null otherwise). Rejects with the reason when it cannot bind. */
export async function openAssetPort(hub: AssetHub, s: TimeSettings): Promise<{ server: AssetServer; port: number } | null> {
  if (s.asset_port === null) return null;
  const server = new AssetServer({ hub, host: s.asset_host, port: s.asset_port, timeoutMs: Math.round(s.asset_timeout_s * 1000) });
  try {
    const addr = await server.start();
    return { server, port: addr.port };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(`time.asset_port ${s.asset_host}:${s.asset_port}: ${e.code === 'EADDRINUSE' ? 'the port is in use; choose another asset_port (0: any free one)' : e.message}`);
  }
}

/** Resolves with the names still missing when every expected asset has joined, or after timeoutS. */
export function waitForAssets(hub: AssetHub, names: readonly string[], timeoutS: number): Promise<string[]> {
  const missing = () => names.filter((n) => !hub.conductor.has(n));
  if (missing().length === 0) return Promise.resolve([]);
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      off();
      resolve(missing());
    };
    const timer = setTimeout(finish, timeoutS * 1000);
    const off = hub.onEvent((e) => {
      if (e.type === 'joined' && missing().length === 0) finish();
    });
  });
}
