/** The web map's entry point (bundled by esbuild into dist/web/main.js with main.css). */
import './style.css';
import { scenePrefix } from './api.js';
import { WebMap } from './app.js';

const app = new WebMap(scenePrefix(location.pathname));
(window as unknown as { __vils: ReturnType<WebMap['debugHandle']> }).__vils = app.debugHandle();
app.start();
