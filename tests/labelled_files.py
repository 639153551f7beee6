"""A labelled TSV in the format a user brings (label, tab, text; no header), for the
tests of the experiments command."""


def write_tsv(path, n, offset=0):
    """``n`` rows, alternately 'neg' and 'pos', whose sentiment word decides the label;
    ``offset`` numbers the rows apart from another file's. Returns ``path``."""
    words = {0: "dull boring awful", 1: "great warm lovely"}
    rows = [f"{'pos' if i % 2 else 'neg'}\tthe film was {words[i % 2].split()[i % 3]} "
            f"number {i + offset}" for i in range(n)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")
    return path
