// How long a Web Worker's reply to a key press takes to reach the page in Chromium,
// by the worker's postMessage, by a MessagePort and by a BroadcastChannel (why the
// calibscope worker answers on a BroadcastChannel: src/proto.rs, ANSWER_CHANNEL_PREFIX).
// Each key press comes right after two animation frames, as a slider being stepped
// (and as the benchmarks' steps, which wait for the page to be idle that way).
//
// Usage: target/release/xtask serve --port 0 --port-file /tmp/p --dir bench/input_deferral &
//        CALIBSCOPE_URL=http://127.0.0.1:$(cat /tmp/p) node bench/input_deferral.mjs [--presses N]
import { launch } from '../tests/e2e/helpers.mjs';

const presses = Number(process.argv[process.argv.indexOf('--presses') + 1]) || 20;
const browser = await launch();
try {
  const page = await browser.newPage();
  await page.goto((process.env.CALIBSCOPE_URL || 'http://127.0.0.1:8080') + '/index.html');
  await page.locator('#r').focus();
  console.log(`Chromium ${browser.version()}, ${presses} key presses each`);
  for (const via of ['postMessage', 'MessagePort', 'BroadcastChannel']) {
    await page.evaluate((v) => { window.via = v; window.results = []; }, via);
    for (let i = 0; i < presses; i++) {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.keyboard.press(i % 2 ? 'ArrowRight' : 'ArrowLeft');
      await page.waitForTimeout(40);
    }
    const r = await page.evaluate(() => window.results);
    const ms = r.map((x) => x.reply_ms).sort((a, b) => a - b);
    const med = ms[Math.floor(ms.length / 2)];
    const late = r.filter((x) => x.after_frame).length;
    console.log(`${via.padEnd(16)} reply median ${med.toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms; after the first frame: ${late}/${r.length}`);
  }
} finally {
  await browser.close();
}
