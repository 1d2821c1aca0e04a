// Page metadata as metascraper reads it: Pagecast's benchmark peer (bench/metadata.py), never
// part of the service. Reads JSON lines {"file": path, "url": page URL} on stdin (a file ending
// in .gz is gunzipped, pages are decoded as UTF-8) and writes one JSON line per page:
// {"file", "title", "description", "image", "publisher", "author", "date", "datePublished",
// "dateModified", "lang", "url", "ms"} ("" where metascraper finds nothing; "error" when it
// fails on the page). "date" is metascraper's default date, the modification date first; its
// publication date is "datePublished".
'use strict'

const fs = require('fs')
const zlib = require('zlib')
const readline = require('readline')

const metascraper = require('metascraper')([
  require('metascraper-author')(),
  require('metascraper-date')({ datePublished: true, dateModified: true }),
  require('metascraper-description')(),
  require('metascraper-image')(),
  require('metascraper-lang')(),
  require('metascraper-publisher')(),
  require('metascraper-title')(),
  require('metascraper-url')()
])

const FIELDS = [
  'title', 'description', 'image', 'publisher', 'author', 'date', 'datePublished',
  'dateModified', 'lang', 'url'
]

async function read (line) {
  const { file, url } = JSON.parse(line)
  let raw = fs.readFileSync(file)
  if (file.endsWith('.gz')) raw = zlib.gunzipSync(raw)
  const html = raw.toString('utf8')
  const out = { file }
  const started = process.hrtime.bigint()
  try {
    const found = await metascraper({ html, url })
    for (const name of FIELDS) out[name] = found[name] == null ? '' : String(found[name])
  } catch (error) {
    out.error = String(error && error.message ? error.message : error).slice(0, 200)
  }
  out.ms = Number(process.hrtime.bigint() - started) / 1e6
  return out
}

async function main () {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  for await (const line of lines) {
    if (!line.trim()) continue
    process.stdout.write(JSON.stringify(await read(line)) + '\n')
  }
}

main()
