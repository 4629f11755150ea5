/** How far a course's trainees are, in percent with two decimals (0 for a course with no rows). */
export function completionPercent(course: { rows_total: number; rows_completed: number }): number {
  return course.rows_total === 0 ? 0 : Math.round((course.rows_completed / course.rows_total) * 10000) / 100;
}
