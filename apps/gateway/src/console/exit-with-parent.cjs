// Preloaded (`node --require`) into the console child. The child runs in its own process group, so a gateway
// killed outright (SIGKILL, OOM) cannot take it down, and it would keep its port with nobody in front of it
// (`npm run chaos` found it left with parent pid 1). Once its parent is gone, it ends its group and itself.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent) return;
  try {
    process.kill(-process.pid, "SIGTERM");
  } catch {
    // not a group leader: only this process
  }
  process.exit(0);
}, 500).unref();
