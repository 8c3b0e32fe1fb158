/**
 * Photos from a phone's camera are 12 megapixels and 3-6 MB; a visit report needs far less, and a
 * phone link pays for every byte. Each photo is scaled down on the phone before it is stored (and
 * so before it is uploaded): its long edge to 1600 px, as JPEG at quality 0.8 (about 200-400 KB).
 * The browser applies the photo's EXIF orientation while decoding it.
 */
export const MAX_EDGE = 1600;
const QUALITY = 0.8;

export async function downscale(file: Blob): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  try {
    const scale = Math.min(1, MAX_EDGE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The photo could not be encoded'))), 'image/jpeg', QUALITY));
  } finally {
    bitmap.close();
  }
}
