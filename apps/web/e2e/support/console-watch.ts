import type { Browser, BrowserContext } from "@playwright/test";

/**
 * Collects what the browser reports as an error in any context a journey opens: `console.error` (React's
 * hydration errors, failed resource loads) and uncaught page errors. The shared fixture fails the journey when
 * the list is not empty, except for messages the journey declared expected with `expectConsoleError`.
 */
const HANDLED_API_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d\b/;

function isApi(url: string): boolean {
  try {
    return new URL(url).pathname.startsWith("/api/");
  } catch {
    return false;
  }
}

export class ConsoleWatch {
  readonly errors: string[] = [];
  private readonly expected: RegExp[] = [];
  private restore: (() => void) | null = null;

  /** Watches every context opened through `browser` until `stop()` (the fixtures' and the journeys' own). */
  attach(browser: Browser) {
    const original = browser.newContext;
    const watch = (context: BrowserContext) => this.watch(context);
    browser.newContext = async function (this: Browser, ...args: Parameters<Browser["newContext"]>) {
      const context = await original.apply(this, args);
      watch(context);
      return context;
    };
    this.restore = () => {
      browser.newContext = original;
    };
  }

  watch(context: BrowserContext) {
    context.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const url = msg.location().url;
      // Chromium logs every 4xx answer; one from the console's API is a refusal the page shows in words (the
      // journeys assert those). 5xx answers, pages that fail to load and every script error still count.
      if (HANDLED_API_REFUSAL.test(msg.text()) && isApi(url)) return;
      this.record(`console.error: ${msg.text()}${url ? ` (${url})` : ""}`);
    });
    context.on("weberror", (err) => this.record(`uncaught: ${err.error().message}`));
  }

  /** A journey that provokes an error on purpose (a 404 it asserts) says so. */
  expect(pattern: RegExp) {
    this.expected.push(pattern);
  }

  unexpected(): string[] {
    return this.errors.filter((e) => !this.expected.some((p) => p.test(e)));
  }

  stop() {
    this.restore?.();
    this.restore = null;
  }

  private record(text: string) {
    this.errors.push(text.slice(0, 2000));
  }
}
