/** One line of the bench table. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  target?: string;
}
