/** A byte count as people read it, in powers of 1000 (`12 B`, `1.5 MB`), as files and medias show it. */
export const sizeReadable = (bytes: number): string => {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
};
