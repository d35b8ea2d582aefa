"""The positions of a model file (`max_context`, its config.json's max_position_embeddings):
each shipped model states them with their source, and `kernelcost model` refuses a context
past them at --context (KC511), as vLLM refuses a max_model_len past them; a model file
without them takes any context."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.modelfile import load_model, parse_model

DATA = Path(__file__).resolve().parent / "data" / "hf"


def _shipped_text(name: str) -> str:
    return (resources.files("kernelcost.models") / f"{name}.toml").read_text("utf-8")


@pytest.mark.parametrize(("name", "positions", "repository"), [
    ("llama3_8b", 8192, "meta-llama/Meta-Llama-3-8B"),
    ("llama3_70b", 8192, "meta-llama/Meta-Llama-3-70B"),
    ("mixtral_8x7b", 32768, "mistralai/Mixtral-8x7B-v0.1")])
def test_each_shipped_model_states_its_positions_with_their_source(name, positions,
                                                                    repository):
    model = load_model(name)
    assert model.max_context == positions
    url = f"https://huggingface.co/{repository}/blob/main/config.json"
    assert model.config_url == url
    assert dict(model.sources)["max_context"] == f"max_position_embeddings in config.json, {url}"


def test_the_shipped_positions_agree_with_the_stored_configs():
    """Mixtral-8x7B-v0.1's config.json (tests/data/hf) gives the same 32,768; Llama-3.1-8B's
    names Llama 3's 8,192 as the positions its RoPE scaling stretches
    (rope_scaling.original_max_position_embeddings)."""
    mixtral = load_model_or_config(str(DATA / "mixtral_8x7b" / "config.json"))
    assert load_model("mixtral_8x7b").max_context == mixtral.max_context
    llama31 = json.loads((DATA / "llama3_1_8b" / "config.json").read_text())
    original = llama31["rope_scaling"]["original_max_position_embeddings"]
    assert load_model("llama3_8b").max_context == original
    assert load_model("llama3_70b").max_context == original


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "^" in err
    return err


def test_llama3_8b_takes_8192_and_refuses_8193_at_the_option(capsys):
    assert main(["model", "llama3_8b", "--batch", "1", "--context", "8192", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context"] == 8192
    err = _refused(["model", "llama3_8b", "--batch", "1", "--context", "8193"], capsys)
    assert err.startswith("--context:1:1: error[KC511]: context 8,193 is longer than the "
                          "8,192 positions of Llama-3-8B (max_position_embeddings)")
    assert "hint: --context 8192 or less" in err


@pytest.mark.parametrize("contexts", ["128..8320:128", "128,8193", "8193"])
def test_a_grid_past_the_positions_is_refused(contexts, tmp_path, capsys):
    out = tmp_path / "grid.csv"
    err = _refused(["model", "llama3_8b", "--batch", "1,2", "--context", contexts,
                    "--grid", str(out)], capsys)
    assert err.startswith("--context:1:1: error[KC511]") and "8,192 positions" in err
    assert not out.exists()


def test_a_grid_up_to_the_positions_is_served(tmp_path, capsys):
    out = tmp_path / "grid.csv"
    assert main(["model", "llama3_8b", "--batch", "1,2", "--context", "128..8192:128",
                 "--grid", str(out)]) == 0
    rows = out.read_text().splitlines()
    assert len(rows) == 1 + 2 * 64
    assert rows[-1].split(",")[:3] == ["1", "2", "8192"]
    capsys.readouterr()


def test_mixtral_takes_32768_and_refuses_one_more(capsys):
    assert main(["model", "mixtral_8x7b", "--batch", "1", "--context", "32768", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context"] == 32768
    err = _refused(["model", "mixtral_8x7b", "--batch", "1", "--context", "32769"], capsys)
    assert "error[KC511]: context 32,769 is longer than the 32,768 positions" in err


def test_a_model_file_without_positions_takes_any_context(tmp_path, capsys):
    text = "\n".join(line for line in _shipped_text("llama3_8b").splitlines()
                     if not line.startswith("max_context"))
    assert parse_model(text, "mine.toml").max_context is None
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert main(["model", str(path), "--batch", "1", "--context", "200000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context"] == 200000


@pytest.mark.parametrize(("old", "new", "code", "key"), [
    ("max_context = 8192\n", "", "KC504", "max_context_source"),
    ("max_context = 8192", "max_context = 0", "KC505", "max_context"),
    ("max_context = 8192", "max_context = \"8k\"", "KC505", "max_context")])
def test_bad_positions_are_errors_at_the_key(old, new, code, key):
    text = _shipped_text("llama3_8b")
    with pytest.raises(KcostError) as raised:
        parse_model(text.replace(old, new), "mine.toml")
    rendered = raised.value.render()
    assert f"error[{code}]" in rendered and f"`{key}`" in rendered and "^" in rendered
