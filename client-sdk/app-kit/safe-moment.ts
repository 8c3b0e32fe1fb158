import { editsInProgress, onEditsSettled } from './edits-in-progress.js';

/**
 * When an app takes a new version that is ready (a reload): never while something is being
 * entered (edits-in-progress.ts), and not under the person's eyes while they read either, unless
 * it is urgent. The moments:
 * - a navigation (the screen changes anyway) with nothing being entered;
 * - the app going to the background (`visibilitychange` to hidden) with nothing being entered;
 * - when `urgent()` (sync has stopped until the app is updated): as soon as nothing is being
 *   entered, at once or when the last edit ends.
 * Returns `check`, to call when urgency may have changed, and `stop`.
 */
export interface SafeMoment {
  check(): void;
  stop(): void;
}

export function takeAtSafeMoment(take: () => void, urgent: () => boolean): SafeMoment {
  let taken = false;
  const takeIf = (moment: boolean) => {
    if (taken || !moment || editsInProgress()) return;
    taken = true;
    stop();
    take();
  };
  // Once the new screen is up: the old one's forms are gone with what was typed in them.
  const navigated = () => setTimeout(() => takeIf(true), 100);
  const visibility = () => takeIf(document.visibilityState === 'hidden');
  const stopSettled = onEditsSettled(() => takeIf(urgent()));
  addEventListener('hashchange', navigated);
  document.addEventListener('visibilitychange', visibility);
  function stop(): void {
    removeEventListener('hashchange', navigated);
    document.removeEventListener('visibilitychange', visibility);
    stopSettled();
  }
  takeIf(urgent());
  return { check: () => takeIf(urgent()), stop };
}
