/** Bytes the app shows: a blob as a `data:` URL (an SVG shown from one cannot run as a page of the app). */

/** The blob as a `data:` URL. */
export function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
