"""The command line of ``server.py``: its commands, their options, and what a person reads when a
command line is wrong.

Every mistake ends with exit status 2 and words on standard error, never a traceback: what is
wrong, then (for a missing or malformed piece) the command's usage and an example to copy; a
near miss of a command's name or of a choice gets a did-you-mean, and so does a page's URL typed
without its scheme (``example.com/page``), which is refused rather than fetched as something
else. A one-shot's or a crawl's ``name=value`` parameters may come before, between or after its
options, and its URL anywhere among them.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from app.crawl_cli import option_problems
from app.oneshot import STDOUT, own_param_problems, parameters_help
from handlers.params.jobs import CRAWL_BODY

PROG = "server.py"
ONE_SHOTS = {
    "screenshot": "one screenshot without a server (-o FILE is required; -o - for stdout)",
    "markdown": "one page as Markdown without a server",
    "oembed": "one oEmbed answer without a server",
}
# What to type, per command (after "server.py "): shown under the usage when a command line is
# wrong.
EXAMPLES: dict[str, tuple[str, ...]] = {
    PROG: ("serve", "markdown https://example.com/", "keys create --org acme --plan pro"),
    "config": ("config", "config --defaults > config.toml"),
    "keys": ("keys create --org acme --plan pro", "keys list", "keys revoke pc_AbCd1234"),
    "keys create": ("keys create --org acme --plan pro",),
    "keys revoke": ("keys revoke pc_AbCd1234",),
    "keys signing-secret": ("keys signing-secret pc_AbCd1234",),
    "markdown": (
        "markdown https://example.com/",
        "markdown https://example.com/ format=json -o page.json",
    ),
    "screenshot": (
        "screenshot https://example.com/ -o shot.png",
        "screenshot https://example.com/ -o - format=png dimensions=xs > shot.png",
    ),
    "oembed": ("oembed https://example.com/", "oembed https://example.com/ -o card.html"),
    "crawl": (
        "crawl https://example.com/ --out site",
        "crawl https://example.com/docs/ --out docs --max-pages 50 --include '/docs/*'",
    ),
    "usage": ("usage", "usage --org acme --month 2025-01"),
    "providers": ("providers import providers.json",),
    "providers import": ("providers import providers.json",),
}
# Commands that need a further command word: the attribute argparse stores it in, and the words.
SUBCOMMANDS = {"keys": "keys_command", "providers": "providers_command"}
# A name=value parameter: a name with none of a URL's marks, then '='.
_PAIR = re.compile(r"[^/:?#=]+=")
# A host (a dotted name, localhost, an IPv4 or bracketed IPv6 address) with an optional port,
# then the rest of a URL: what a URL typed without its scheme looks like.
_SCHEMELESS = re.compile(
    r"(?://)?(?P<host>localhost|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\.?)"
    r"(?::\d{1,5})?(?:[/?#].*)?",
    re.DOTALL,
)
_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}|\[.*\]")


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors a person understands: the message, the usage, examples
    to copy and where the help is; an unknown choice (a command's name among them) gets the
    closest one as a did-you-mean."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)
        self.commands: Mapping[str, CommandParser] = {}
        """The parsers of this command's subcommands, by name."""

    def format_help(self) -> str:
        if not self.examples:
            return super().format_help()
        return f"{super().format_help()}\nexamples:\n{self._examples()}"

    def error(self, message: str) -> NoReturn:
        lines = [f"{self.prog}: {message}", self.format_usage().rstrip()]
        if self.examples:
            lines += ["for example:", self._examples().rstrip()]
        lines.append(f"({self.prog} --help tells more)")
        self.exit(2, "\n".join(lines) + "\n")

    def _examples(self) -> str:
        return "".join(f"  {PROG} {example}\n" for example in self.examples)

    def fail(self, message: str) -> NoReturn:
        """Refuse the command line with one line that says why and what to type instead."""
        self.exit(2, f"{self.prog}: {message}\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        hint = did_you_mean(str(value), names)
        # A subparsers action's choices map each command's name to its parser.
        what = "command" if isinstance(choices, Mapping) else "choice"
        raise argparse.ArgumentError(
            None, f"unknown {what} {value!r}{hint}; the {what}s: {', '.join(names)}"
        )


def did_you_mean(word: str, known: Sequence[str]) -> str:
    """`` (did you mean list?)`` for a near miss of one of ``known``, else nothing."""
    close = difflib.get_close_matches(word.lower(), known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the page a command asks for, with the URL meant when it only
    lacks its scheme; None when it has one (the API judges the rest: a scheme other than http
    and https, a malformed host)."""
    if not url.strip():
        return "the page's URL is empty"
    if "://" not in url and os.path.exists(url):
        return f"{url} is a file here, not a URL: Pagecast fetches pages over http or https"
    typed = _SCHEMELESS.fullmatch(url)
    if typed is None:
        return None
    host = typed["host"]
    scheme = "http" if host == "localhost" or _ADDRESS.fullmatch(host) else "https"
    meant = f"{scheme}:{url}" if url.startswith("//") else f"{scheme}://{url}"
    return f"{url} is not a URL (no http:// or https://); did you mean {meant}?"


def table_int(name: str) -> Callable[[str], int]:
    """An argparse type for the crawl body's integer field ``name``, with the rules and words
    the API has for it."""

    def read(text: str) -> int:
        parsed, problems = CRAWL_BODY.parse({name: [text]})
        for problem in problems:
            if problem.name == name:
                raise argparse.ArgumentTypeError(f"{problem.message}, not {text!r}")
        return int(parsed.values[name])

    read.__name__ = name  # argparse names the type in some messages
    return read


def build_parser(description: str = "") -> CommandParser:
    parser = CommandParser(prog=PROG, description=description, examples=EXAMPLES[PROG])
    parser.add_argument(
        "--config",
        type=Path,
        default=os.environ.get("PAGECAST_CONFIG"),
        help="config file (default: $PAGECAST_CONFIG, else config.toml beside server.py)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = commands.choices
    commands.add_parser(
        "serve",
        help="run the server (the default)",
        description="Run the API and frames servers with the settings of config.toml (beside "
        "server.py, or --config or PAGECAST_CONFIG) and of PAGECAST_* environment variables: "
        "server.port, server.frame_port, store.data_dir and every other setting is one "
        "(PAGECAST_SERVER_PORT=9000, PAGECAST_STORE_DATA_DIR=/var/lib/pagecast). `config` "
        "prints them all with where each comes from; docs/settings.md describes each.",
    )
    config = commands.add_parser(
        "config",
        help="print the effective settings and where each comes from (file, environment)",
        examples=EXAMPLES["config"],
    )
    config.add_argument(
        "--defaults",
        action="store_true",
        help="print the commented config.toml with every default instead",
    )
    config.add_argument(
        "--markdown", action="store_true", help="print the configuration reference in Markdown"
    )
    config.add_argument(
        "--into", type=Path, help="with --markdown: replace the reference kept in this file"
    )
    _keys(commands)
    for name, text in ONE_SHOTS.items():
        one = commands.add_parser(
            name,
            help=text,
            usage="%(prog)s URL [name=value ...] [-o FILE] [-v]",
            description=text[0].upper() + text[1:] + ".",
            epilog=parameters_help(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            examples=EXAMPLES[name],
        )
        one.add_argument("url", nargs="?", metavar="URL", help="the page (http or https)")
        one.add_argument("params", nargs="*", metavar="name=value", help="API parameters")
        one.add_argument(
            "-o",
            "--output",
            type=Path,
            metavar="FILE",
            help="write the answer to this file (- for stdout)",
        )
        one.add_argument(
            "-v", "--verbose", action="store_true", help="also log and report progress on stderr"
        )
    _crawl(commands)
    usage = commands.add_parser(
        "usage", help="credits by organization and endpoint", examples=EXAMPLES["usage"]
    )
    usage.add_argument("--org", help="one organization")
    usage.add_argument(
        "--month", help="one month, YYYY-MM, or all (default: the current month, UTC)"
    )
    mcp = commands.add_parser(
        "mcp",
        help="Pagecast's tools for agents over MCP (stdio or streamable HTTP): pagecast-mcp "
        "pointed at this server; its options follow (mcp --help)",
        add_help=False,
    )
    mcp.add_argument("options", nargs=argparse.REMAINDER, help="pagecast-mcp's options")
    providers = commands.add_parser(
        "providers",
        help="manage the oEmbed provider registry",
        examples=EXAMPLES["providers"],
    )
    provider_commands = providers.add_subparsers(dest="providers_command", metavar="COMMAND")
    providers.commands = provider_commands.choices
    importer = provider_commands.add_parser(
        "import",
        help="import a providers.json (the oembed.com registry format)",
        examples=EXAMPLES["providers import"],
    )
    importer.add_argument("file", type=Path)
    return parser


def _keys(commands: Any) -> None:
    keys = commands.add_parser("keys", help="manage API keys", examples=EXAMPLES["keys"])
    key_commands = keys.add_subparsers(dest="keys_command", metavar="COMMAND")
    keys.commands = key_commands.choices
    create = key_commands.add_parser(
        "create",
        help="issue a key; prints it once, on the last line",
        examples=EXAMPLES["keys create"],
    )
    create.add_argument("--org", required=True, help="organization name (created if new)")
    create.add_argument("--plan", default="free", help="plan of the organization (default: free)")
    key_commands.add_parser("list", help="list keys: prefix, org, plan, created, revoked")
    revoke = key_commands.add_parser(
        "revoke", help="revoke a key by its prefix", examples=EXAMPLES["keys revoke"]
    )
    revoke.add_argument("prefix", help="the key's prefix, as keys list shows it")
    signing = key_commands.add_parser(
        "signing-secret",
        help="print the signing secret of a key's signed screenshot links",
        examples=EXAMPLES["keys signing-secret"],
    )
    signing.add_argument("prefix", help="the key's prefix, as keys list shows it")


def _crawl(commands: Any) -> None:
    crawl = commands.add_parser(
        "crawl",
        help="a site as Markdown files without a server, with a progress bar",
        usage="%(prog)s URL --out DIR [--max-pages N] [--max-depth N] [--include GLOB] "
        "[--exclude GLOB] [--subdomains] [name=value ...]",
        description="Crawl a site breadth first from URL (its host only, robots.txt obeyed) "
        "and write each page as DIR/<path>.md (slashes as __), with DIR/index.json listing "
        "every page.",
        epilog="Markdown parameters for every page may follow as name=value "
        "(see `server.py markdown --help`; those that shape one answer, such as format, "
        "do not apply).",
        examples=EXAMPLES["crawl"],
    )
    crawl.add_argument("url", nargs="?", metavar="URL", help="the start page (http or https)")
    crawl.add_argument("params", nargs="*", metavar="name=value", help="Markdown parameters")
    crawl.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    for name, words in (("max_pages", "most pages"), ("max_depth", "most links deep")):
        default = CRAWL_BODY.by_name[name].default
        crawl.add_argument(
            "--" + name.replace("_", "-"),
            type=table_int(name),
            default=default,
            metavar="N",
            help=f"{words} (default {default})",
        )
    crawl.add_argument(
        "--include", action="append", default=[], metavar="GLOB", help="paths to crawl"
    )
    crawl.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="paths to leave out"
    )
    crawl.add_argument("--subdomains", action="store_true", help="follow subdomains too")


def parse_args(argv: Sequence[str] | None, description: str = "") -> argparse.Namespace:
    """The command line, checked: a wrong one ends the process (status 2) with words that say
    what to type. A one-shot's or a crawl's ``params`` become a dict of name to value."""
    parser = build_parser(description)
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    command = parser.commands.get(args.command or "", parser)
    word = SUBCOMMANDS.get(args.command or "")
    if word and getattr(args, word) is None:
        choices = list(command.commands)
        named = f"{', '.join(choices[:-1])} or {choices[-1]}" if len(choices) > 1 else choices[0]
        command.error(f"which {args.command} command? {named}")
    if word:
        command = command.commands[getattr(args, word)]
    if args.command == "mcp":
        args.options = [*rest, *args.options]
    elif args.command in (*ONE_SHOTS, "crawl"):
        _read_target(command, args, rest)
    elif rest:
        command.error(f"unrecognized arguments: {' '.join(rest)}")
    return args


def _read_target(parser: CommandParser, args: argparse.Namespace, rest: list[str]) -> None:
    """A one-shot's or a crawl's words as its URL and its parameters, or the process ends with
    what is wrong with them."""
    words = [*([] if args.url is None else [args.url]), *args.params, *rest]
    options = [word for word in words if word.startswith("-")]
    if options:
        parser.error(f"unknown option {options[0]}; parameters look like name=value")
    targets = [word for word in words if not _PAIR.match(word)]
    if not targets:
        page = "start page's" if args.command == "crawl" else "page's"
        parser.error(f"the {page} URL is missing")
    targets.sort(key=lambda word: "://" not in word)  # a URL first
    for extra in targets[1:]:
        if "://" in extra:
            parser.fail(f"one page at a time: {targets[0]} and {extra} are both URLs")
        parser.fail(f"parameters look like name=value, not {extra!r}")
    problem = url_problem(targets[0])
    if problem:
        parser.fail(problem)
    params: dict[str, str] = {}
    for pair in words:
        if _PAIR.match(pair):
            name, _, value = pair.partition("=")
            params[name] = value
    problems = (
        option_problems(params)
        if args.command == "crawl"
        else own_param_problems(args.command, params)
    )
    if problems:
        parser.fail("; ".join(problems))
    args.url = targets[0]
    args.params = params
    if args.command in ONE_SHOTS:
        _check_output(parser, args.command, args.output)


def _check_output(parser: CommandParser, command: str, output: Path | None) -> None:
    """Refuse an output the answer could not be written to, before the page is fetched."""
    if output is None and command == "screenshot":
        parser.error("a screenshot needs -o FILE (-o - writes it to standard output)")
    if output is None or output == STDOUT:
        return
    if output.is_dir():
        parser.fail(f"-o {output} is a folder; name a file in it")
    if not output.parent.is_dir():
        parser.fail(f"-o {output}: there is no folder {output.parent}")
