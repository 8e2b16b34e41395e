// Runs a MicroPython script on the official WebAssembly port (which has asyncio), with
// host folders copied (read, never written) into its in-memory file system.
//   node node_micropython.mjs PACKAGE_DIR SCRIPT.py HOST_DIR=MP_DIR ...
// Prints the script's stdout; exits 1 with the Python traceback on an uncaught exception.
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [packageDir, scriptPath, ...folders] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(path.join(packageDir, "micropython.mjs")).href);
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function copyTree(hostDir, mpDir) {
  mp.FS.mkdir(mpDir);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const from = path.join(hostDir, entry.name);
    const to = mpDir + "/" + entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") copyTree(from, to);
    } else if (entry.name.endsWith(".py")) {
      mp.FS.writeFile(to, fs.readFileSync(from));
    }
  }
}
mp.FS.mkdir("/fw");
for (const pair of folders) {
  const [hostDir, mpDir] = pair.split("=");
  copyTree(hostDir, mpDir);
}

try {
  await mp.runPythonAsync(fs.readFileSync(scriptPath, "utf8"));
} catch (error) {
  process.stderr.write(String(error && error.message ? error.message : error) + "\n");
  process.exit(1);
}
