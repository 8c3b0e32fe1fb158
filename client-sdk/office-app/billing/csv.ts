/**
 * Reads a CSV file as the server writes its result files (RFC 4180: a field with a comma, quote or
 * line break is quoted, a quote inside doubled), as rows of named fields.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const rows = csvRows(text.replace(/^\uFEFF/, ''));
  const [header, ...body] = rows;
  if (!header) return [];
  return body.filter((r) => r.some(Boolean)).map((r) => Object.fromEntries(header.map((name, i) => [name, r[i] ?? ''])));
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field), rows.push(row), (row = []), (field = '');
    } else field += c;
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows;
}
