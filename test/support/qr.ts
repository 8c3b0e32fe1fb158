import jsqr from 'jsqr';
import type { Locator } from 'playwright-core';

// jsQR is a CommonJS bundle whose module is the function itself (and, as its types say, its `default` too).
const jsQR = (jsqr as unknown as { default: typeof import('jsqr').default }).default;

/**
 * What a QR code shown in the page says, read the way a phone's camera reads it: the image's
 * pixels as the browser draws them, decoded by jsQR (not the text the page prints beside it).
 */
export async function qrTextOf(image: Locator): Promise<string | null> {
  const { width, height, rgba } = await image.evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(img, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    // A string crosses to the test far faster than an array of numbers.
    let binary = '';
    for (let i = 0; i < pixels.length; i += 0x8000) binary += String.fromCharCode(...pixels.subarray(i, i + 0x8000));
    return { width: canvas.width, height: canvas.height, rgba: btoa(binary) };
  });
  return jsQR(new Uint8ClampedArray(Buffer.from(rgba, 'base64')), width, height)?.data ?? null;
}
