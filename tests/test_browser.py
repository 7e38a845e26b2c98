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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A token-less JupyterLab serving tmp_path; yields its base URL."""
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    settings = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # no news or update pop-ups over the page
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
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
    if CHROMIUM is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python not installed")
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
            page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')",
                                   timeout=90_000)
            # wait for the kernel, then run every cell
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            first = page.locator(".mk-explorer").first
            first.locator("g.mk-node").first.wait_for(timeout=120_000)
            # the run is done when every explorer and the lanes view are drawn and the kernel is idle
            page.wait_for_function("document.querySelectorAll('.mk-explorer').length >= 6"
                                   " && document.querySelectorAll('.mk-lanes svg').length >= 1",
                                   timeout=180_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']").count() == 0, \
                errors.all_inner_texts()

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
            first.screenshot(path=str(out))
            assert out.stat().st_size > 10_000
        finally:
            browser.close()
