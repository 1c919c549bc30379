// Start-up of the page on localhost (issue 9): first-contentful-paint and the time
// to the first diagram of the example audit (the chart and the reliability table in
// the DOM, then the end of that frame), both from the navigation start
// (performance.now() origin), in fresh browser contexts. Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/startup_browser.mjs [--runs N]
// (serve dist/ first: target/release/xtask serve --port 0 --port-file F)
import { launch, baseUrl } from '../tests/e2e/helpers.mjs';
import { median, r1 } from './browser.mjs';

const runs = process.argv[2] === '--runs' ? Number(process.argv[3]) : 5;
const browser = await launch();
const fcp = [];
const diagram = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/`);
    const r = await page.evaluate(() => new Promise((resolve) => {
      const done = () => requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          const p = performance.getEntriesByName('first-contentful-paint')[0];
          resolve({ fcp: p ? p.startTime : null, diagram: performance.now() });
        };
        ch.port2.postMessage(0);
      });
      const ready = () => document.querySelector('#chart .svg svg') && document.querySelector('#reliability-table tbody tr');
      if (ready()) { done(); return; }
      const mo = new MutationObserver(() => { if (ready()) { mo.disconnect(); done(); } });
      mo.observe(document.body, { subtree: true, childList: true });
    }));
    fcp.push(r.fcp);
    diagram.push(r.diagram);
    console.log(`run ${i + 1}: first-contentful-paint ${r1(r.fcp)} ms, first diagram ${r1(r.diagram)} ms`);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(`median of ${runs}: first-contentful-paint ${r1(median(fcp))} ms, first diagram ${r1(median(diagram))} ms`);
