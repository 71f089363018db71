/** One thing the docs check found wrong, where it is. */
export interface Problem {
  file: string;
  /** 1-based; absent for a problem of the whole file. */
  line?: number;
  message: string;
}

export const formatProblem = (p: Problem) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`;
