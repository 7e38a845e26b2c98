"""The explorer in a real browser: JupyterLab 4 + Debian's chromium driven by Playwright.

Starts JupyterLab on a free localhost port (no token) in a temp folder with a
copy of notebooks/01_search_trees.ipynb, runs every cell in quick mode, clicks
a node of the first explorer and checks that the panel shows that node's sets.
Saves figures/01_explorer_browser.png. Skips when chromium or Playwright is
missing.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "01_search_trees.ipynb"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# the notebook's kernel exists and is idle
KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k && k.status === "idle";
}"""


# error outputs of the notebook's cells, and how many outputs were looked at
CELL_ERRORS = """() => {
  const model = window.jupyterapp.shell.currentWidget.content.model;
  const errors = [];
  let seen = 0;
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    if (cell.type !== "code") continue;
    for (let j = 0; j < cell.outputs.length; j++) {
      const out = cell.outputs.get(j);
      seen += 1;
      if (out.type === "error") errors.push(JSON.stringify(out.toJSON()).slice(0, 2000));
    }
  }
  return {errors, seen};
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A token-less JupyterLab serving tmp_path; yields its base URL."""
    if CHROMIUM is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api", reason="Playwright not installed (pip install playwright)")
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    settings = tmp_path / "settings" / "@jupyterlab"
    for ext, name, value in (
        # no news pop-up, no "Select Kernel" dialog
        ("apputils-extension", "notification", {"fetchNews": "false", "checkForUpdates": False}),
        ("notebook-extension", "tracker", {"autoStartDefaultKernel": True}),
    ):
        (settings / ext).mkdir(parents=True, exist_ok=True)
        (settings / ext / f"{name}.jupyterlab-settings").write_text(json.dumps(value))
    env = dict(os.environ, MCE_KIT_QUICK="1", MCE_KIT_FIGURES=str(tmp_path / "figures"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    port = free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
           "--allow-root", "--LabApp.extension_manager=readonly",
           f"--ServerApp.root_dir={tmp_path}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = open(tmp_path / "lab.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(url + "/api/status", timeout=1)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("JupyterLab exited:\n" + (tmp_path / "lab.log").read_text())
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text())
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_explorer_click_shows_node_sets(lab):
    from playwright import sync_api

    from mce_kit import sim

    # the node we will click, and what the panel must then say about it
    tree = sim.bron_kerbosch(sim.figure1_graph(), pivot=False, order="natural", seeds="root")
    node = 2
    want = {k: "{" + ", ".join(tree.label_set(k, v)) + "}" for k, v in tree.sets(node).items()}
    assert want["R"] == "{A, B}"

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{lab}/lab/tree/{NOTEBOOK.name}")
            # wait for the kernel, then run every cell (without awaiting the command)
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            first = page.locator(".mk-explorer").first
            first.locator("g.mk-node").first.wait_for(timeout=120_000)
            # the run is done when every explorer and the lanes view are drawn and the kernel is idle
            page.wait_for_function("document.querySelectorAll('.mk-explorer').length >= 6"
                                   " && document.querySelectorAll('.mk-lanes svg').length >= 1",
                                   timeout=180_000)
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            outputs = page.evaluate(CELL_ERRORS)
            assert outputs["errors"] == [] and outputs["seen"] >= 20

            first.scroll_into_view_if_needed()
            first.locator(f"g.mk-node[data-node='{node}']").click()
            panel = first.locator("[data-role=panel]")
            panel.locator("[data-role=node-id]", has_text=f"#{node}").wait_for(timeout=30_000)
            for name, text in want.items():
                assert panel.locator(f"tr[data-set='{name}'] td").inner_text() == text
            # the clicked node is drawn as selected, and the graph highlights R
            assert "mk-sel" in first.locator(f"g.mk-node[data-node='{node}']").get_attribute("class")
            assert first.locator(".mk-graph line.mk-hot").count() == 1  # the edge A-B
            out = ROOT / "figures" / "01_explorer_browser.png"
            out.parent.mkdir(exist_ok=True)
            # the whole output: ipywidgets controls above the explorer view
            first.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')][1]").screenshot(
                path=str(out))
            assert out.stat().st_size > 10_000
        finally:
            browser.close()
