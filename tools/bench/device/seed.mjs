// Seeds a device run (run.sh): node seed.mjs URL TOKENS_CSV N creates N plants for each token, ids from 1 (the hot
// read's page is 100 of them: "plant number i", as the bench's).
const [url, csv, n] = process.argv.slice(2);
const tokens = csv.split(',');
for (const token of tokens) {
  const jobs = [];
  for (let i = 1; i <= Number(n); i++) {
    jobs.push(
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: i, name: `plant number ${i}`, tag: `tag${i}` }),
      }).then((r) => {
        if (r.status !== 201 && r.status !== 200) throw new Error(`seed ${r.status}`);
      }),
    );
    if (jobs.length >= 32) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
}
