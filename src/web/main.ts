/** The web map's entry point (bundled by esbuild into dist/web/main.js with main.css). */
import './style.css';
import { scenePrefix } from './api.js';
import { WebMap } from './app.js';
import { debugHandle } from './debug-handle.js';

const app = new WebMap(scenePrefix(location.pathname));
// for tests and the curious
(window as unknown as { __vils: ReturnType<typeof debugHandle> }).__vils = debugHandle(app);
app.start();
