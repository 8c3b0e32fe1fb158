/**
 * A fetch for an SDK client whose live stream passes through a valve: every event block
 * (`data: ...`, heartbeats and comments included) is shown to `decide`, which passes it, drops it
 * (as a lost event would be), or holds it until `release()`. Other requests go through untouched.
 */
export type Decision = 'pass' | 'drop' | 'hold';

export function streamValve(decide: (block: string) => Decision) {
  const held: string[] = [];
  let deliver: ((block: string) => void) | null = null;
  const valveFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!String(input).includes('/sync/stream') || !res.body) return res;
    let buffer = '';
    const body = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TransformStream<string, string>({
        start(out) {
          // Held blocks go to the newest stream: one the SDK gave up (and so closed) takes nothing.
          deliver = (block) => {
            try {
              out.enqueue(block);
            } catch {
              /* that stream is closed; the SDK pulls what it missed when it reconnects */
            }
          };
        },
        transform(chunk, out) {
          buffer += chunk;
          const blocks = buffer.split('\n\n');
          buffer = blocks.pop()!;
          for (const b of blocks) {
            const decision = decide(b);
            if (decision === 'pass') out.enqueue(`${b}\n\n`);
            else if (decision === 'hold') held.push(`${b}\n\n`);
          }
        },
      }),
    );
    return new Response(body.pipeThrough(new TextEncoderStream()), { status: res.status, headers: res.headers });
  };
  return {
    fetch: valveFetch,
    held,
    /** Lets the oldest `count` held blocks through (all of them by default). */
    release(count = held.length) {
      for (const block of held.splice(0, count)) deliver?.(block);
    },
  };
}
