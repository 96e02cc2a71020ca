#!/usr/bin/env bash
# Fails (exit 1) when auditor/ throws one of the trainer's error types (InputError, TrainingError,
# FileError(...), RecordError(...), with or without pstrain::) or any other pstrain:: type outside
# pstrain::audit: the auditor's one error type is AuditError (auditor/report/audit_error.h, which
# says what may still reach RunReportingErrors from the trainer libraries). Prints each such throw,
# also one split over lines; comments are skipped. Catching a trainer library's error at the call
# into it stays allowed.
#
#   scripts/check-audit-errors.sh [SOURCE_DIR]    (default: the repository this script is in)
#
# Run by ctest (auditor_error_type).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/auditor" ] || { echo "check-audit-errors: $root/auditor is missing" >&2; exit 2; }
mapfile -d '' files < <(find "$root/auditor" -type f \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
[ "${#files[@]}" -gt 0 ] || { echo "check-audit-errors: no sources under $root/auditor" >&2; exit 2; }
found=$(perl -0777 -ne '
  my $text = $_;
  $text =~ s{/\*.*?\*/}{ (my $c = $&) =~ tr/\n//cd; $c }gse;  # block comments (their newlines kept)
  $text =~ s{//[^\n]*}{}g;                                       # line comments
  while ($text =~ /\bthrow\s+(?:::)?((?:pstrain::)?(?:InputError|TrainingError|FileError|RecordError)\b|pstrain::(?!audit::)\w+)/g) {
    my $line = 1 + (substr($text, 0, $-[0]) =~ tr/\n//);
    print "$ARGV:$line: throws $1, not AuditError\n";
  }' "${files[@]}")
if [ -n "$found" ]; then
  printf '%s\n' "${found//"$root"\//}" >&2
  exit 1
fi
exit 0
