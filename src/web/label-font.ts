/** The font of the map's labels (NPCs, signals), apart from draw.ts so that signals.ts sets it without importing the drawing. */
export const LABEL_FONT = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
