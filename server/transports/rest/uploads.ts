import type { RequestHandler } from 'express';
import multer from 'multer';
import { errors } from '../../../shared/index.js';

/**
 * Multipart parsing for uploads (multer, in memory, bounded). Nothing is stored until the whole
 * body has arrived, so an interrupted upload leaves nothing behind. Multer's errors become our
 * error kinds: too large -> PAYLOAD_TOO_LARGE, anything else malformed -> BAD_USER_INPUT.
 */
/**
 * What a multipart body may hold beyond its file: the fields (at most 10 of 10,000 bytes) and the
 * part headers and boundaries around them. A body declaring more than the file limit plus this is
 * refused before it is read (`declaredBodyWithin`).
 */
export const MULTIPART_ALLOWANCE = 128 * 1024;

export function singleFileUpload(maxBytes: number): RequestHandler {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 10_000, parts: 12 },
  }).single('file');
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (!error) return next();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') {
          return next(errors.payloadTooLarge(`The file is larger than the ${maxBytes} bytes accepted`));
        }
        return next(errors.badInput(`Malformed upload: ${error.message}${error.field ? ` (${error.field})` : ''}`));
      }
      next(error);
    });
  };
}

/** The uploaded file's bytes, or BAD_USER_INPUT naming the field. */
export function uploadedBytes(file: Express.Multer.File | undefined): Buffer {
  if (!file || file.size === 0) throw errors.badInput('A non-empty file is required in the multipart field "file"');
  return file.buffer;
}
