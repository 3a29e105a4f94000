import csv
from collections import defaultdict
from decimal import Decimal

totals = defaultdict(Decimal)
with open("input/sales.csv", newline="", encoding="utf-8") as handle:
    for row in csv.DictReader(handle):
        totals[row["region"]] += Decimal(row["amount"] or "0")

with open("output/summary.csv", "w", newline="", encoding="utf-8") as handle:
    writer = csv.writer(handle)
    writer.writerow(["region", "total"])
    for region, total in sorted(totals.items()):
        writer.writerow([region, f"{total:.2f}"])
