// The CHANGELOG.md step of a release, in Keep a Changelog form: what is under ## [Unreleased]
// becomes the dated ## [X.Y.Z] section, and the compare links at the bottom follow.

interface ReleasedChangelog {
  text: string;
  // The section's body, used as the tag message and so as the GitHub release notes.
  notes: string;
  // What happened, for the release script's log.
  change: string;
}

const HEADING = /^## \[([^\]]+)\]/;
const LINK = /^\[([^\]]+)\]: (\S+)$/;

// Lines after the heading at `start`, up to the next heading or the link definitions.
function sectionEnd(lines: string[], start: number): number {
  const next = lines.findIndex((line, i) => i > start && (HEADING.test(line) || LINK.test(line)));
  return next < 0 ? lines.length : next;
}

const hasEntries = (lines: string[]) => lines.some((line) => /^\s*[-*] \S/.test(line));

// Throws an Error whose message is one line saying what to fix in CHANGELOG.md.
export function releaseChangelog(
  text: string,
  version: string,
  previous: string,
  date: string,
): ReleasedChangelog {
  const lines = text.split('\n');
  const headingOf = (name: string) => lines.findIndex((l) => HEADING.exec(l)?.[1] === name);
  const unreleased = headingOf('Unreleased');
  if (unreleased < 0) throw new Error('CHANGELOG.md has no "## [Unreleased]" heading');
  const pending = lines.slice(unreleased + 1, sectionEnd(lines, unreleased));
  let section = headingOf(version);
  let change: string;

  if (section >= 0) {
    // Written by hand (the first release, or notes edited before releasing): keep it, add the date.
    if (hasEntries(pending))
      throw new Error(
        `CHANGELOG.md has both a "## [${version}]" section and entries under [Unreleased]: move them into one`,
      );
    if (!hasEntries(lines.slice(section + 1, sectionEnd(lines, section))))
      throw new Error(`CHANGELOG.md: "## [${version}]" lists no change`);
    const dated = /^## \[[^\]]+\] - \d{4}-\d{2}-\d{2}$/.test(lines[section]!);
    if (!dated) lines[section] = `## [${version}] - ${date}`;
    change = dated ? `keeps "## [${version}]" as written` : `dates "## [${version}] - ${date}"`;
  } else {
    if (!hasEntries(pending))
      throw new Error(
        `CHANGELOG.md: nothing under "## [Unreleased]"; add the user-visible changes of ${version} first`,
      );
    lines.splice(unreleased + 1, 0, '', `## [${version}] - ${date}`);
    section = unreleased + 2;
    change = `moves the ${pending.filter((l) => l.trim()).length} lines under [Unreleased] to "## [${version}] - ${date}"`;
  }

  // [Unreleased]: <repo>/compare/vA...HEAD  →  compare from this release, and a link for it.
  const link = lines.findIndex((l) => LINK.exec(l)?.[1] === 'Unreleased');
  const repo =
    link < 0 ? undefined : /^(.*)\/compare\/\S+$/.exec(LINK.exec(lines[link]!)![2]!)?.[1];
  if (repo !== undefined) {
    lines[link] = `[Unreleased]: ${repo}/compare/v${version}...HEAD`;
    if (!lines.some((l) => LINK.exec(l)?.[1] === version))
      lines.splice(
        link + 1,
        0,
        version === previous
          ? `[${version}]: ${repo}/releases/tag/v${version}`
          : `[${version}]: ${repo}/compare/v${previous}...v${version}`,
      );
  }

  const notes = lines
    .slice(section + 1, sectionEnd(lines, section))
    .join('\n')
    .trim();
  return { text: lines.join('\n'), notes, change };
}
