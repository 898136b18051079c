/**
 * An amount of US dollars as people read it: cents from a dollar up
 * ("$12.30"), two significant digits below ("$0.0042"), so a day of cheap
 * turns never shows as "$0.00" while it cost something.
 */
export function dollars(amount: number): string {
  if (amount > 0 && amount < 1e-6) return "under $0.000001";
  if (amount >= 1 || amount === 0) return `$${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const digits = Math.max(2, 1 - Math.floor(Math.log10(amount)));
  return `$${amount.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
}
