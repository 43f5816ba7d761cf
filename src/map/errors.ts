/** A map file that does not follow the format: the message names the field at fault. */
export class MapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MapFormatError';
  }
}
