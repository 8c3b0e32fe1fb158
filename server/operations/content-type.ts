import { fileTypeFromBuffer } from 'file-type';
import { errors } from '../../shared/index.js';

/**
 * What a file is, judged by its bytes (magic numbers), never by the name or declared type.
 */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif']);

export async function detectImage(bytes: Buffer): Promise<string> {
  const type = await fileTypeFromBuffer(bytes);
  if (type && IMAGE_TYPES.has(type.mime)) return type.mime;
  throw errors.unsupportedMediaType(
    `The file is ${type ? type.mime : 'not a recognised format'}; JPEG, PNG, WebP or HEIC images are accepted`,
  );
}

export async function detectPdf(bytes: Buffer): Promise<string> {
  const type = await fileTypeFromBuffer(bytes);
  if (type?.mime === 'application/pdf') return type.mime;
  throw errors.unsupportedMediaType(`The file is ${type ? type.mime : 'not a recognised format'}; a PDF is required`);
}
