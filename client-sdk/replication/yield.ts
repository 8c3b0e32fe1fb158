/**
 * Lets the page (or the process) handle what waits before the next piece of a long job: a click,
 * a frame, a live event. In a browser a message to itself, which runs after input and rendering
 * without setTimeout's 4 ms clamp; in Node, setImmediate.
 */
export function yieldToEventLoop(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
