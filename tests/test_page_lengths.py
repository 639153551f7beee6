"""tools/page_lengths.py counts the text a reader meets on a built page (code and
outputs in, scripts out, whitespace runs as one) and fails a page over --max."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
pytest.importorskip("bs4")
from page_lengths import main, page_text  # noqa: E402


def page(body: str) -> str:
    return ("<html><body><nav>a long sidebar of every chapter</nav><main><article "
            f'class="bd-article">{body}</article></main></body></html>')


def test_the_text_is_the_articles_with_code_and_outputs_and_no_scripts():
    html = page('<h1>Title<a class="headerlink">#</a></h1><p>Some   words\n here.</p>'
                '<div class="cell_input"><pre>x = 1</pre></div>'
                '<div class="cell_output"><pre>0.81</pre><script>var a = 1;</script>'
                "<style>p {}</style></div>")
    assert page_text(html) == "Title Some words here. x = 1 0.81"


def test_the_command_fails_on_a_page_over_the_limit(tmp_path, capsys):
    site = tmp_path / "html"
    (site / "book").mkdir(parents=True)
    (site / "book" / "01_short.html").write_text(page("<p>" + "word " * 10 + "</p>"))
    (site / "book" / "02_long.html").write_text(page("<p>" + "word " * 100 + "</p>"))
    (site / "book" / "appendix_x.html").write_text(page("<p>" + "word " * 100 + "</p>"))
    assert main([str(site), "--no-screens", "--max", "200"]) == 1
    out = capsys.readouterr().out
    assert "book/02_long.html: 499 characters  over 200\n" in out
    assert "book/01_short.html: 49 characters\n" in out
    assert main([str(site), "--no-screens", "--pages", "book/0[1]*.html",
                 "--max", "200"]) == 0
    assert "02_long" not in capsys.readouterr().out
    assert main([str(site / "nowhere")]) == 2
    assert main(["--build", str(tmp_path / "none.ipynb")]) == 2
